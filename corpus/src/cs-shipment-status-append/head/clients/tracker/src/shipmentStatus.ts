// The API sends a shipment's status as the number of its member in
// src/Parcelly.Api/Shipping/ShipmentStatus.cs.
export enum ShipmentStatus {
  Created = 0,
  InTransit = 1,
  OutForDelivery = 2,
  Delivered = 3,
  Returned = 4,
  AwaitingPickup = 5,
}

export const statusLabel: Record<ShipmentStatus, string> = {
  [ShipmentStatus.Created]: "Label created",
  [ShipmentStatus.AwaitingPickup]: "Waiting for the carrier at the drop-off point",
  [ShipmentStatus.InTransit]: "On its way",
  [ShipmentStatus.OutForDelivery]: "Out for delivery today",
  [ShipmentStatus.Delivered]: "Delivered",
  [ShipmentStatus.Returned]: "Returned to sender",
};

export function isFinished(status: ShipmentStatus): boolean {
  return status === ShipmentStatus.Delivered || status === ShipmentStatus.Returned;
}
