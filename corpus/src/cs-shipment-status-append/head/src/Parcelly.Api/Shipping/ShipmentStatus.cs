namespace Parcelly.Api.Shipping;

/// <summary>Where a parcel is on its way to the recipient.</summary>
/// <remarks>
/// Clients receive and store these as numbers, so every member keeps its value:
/// add new ones at the end with the next number, whatever their place in the lifecycle.
/// </remarks>
public enum ShipmentStatus
{
    Created = 0,
    InTransit = 1,
    OutForDelivery = 2,
    Delivered = 3,
    Returned = 4,
    AwaitingPickup = 5,
}
