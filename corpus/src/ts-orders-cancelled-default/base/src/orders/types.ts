export type OrderStatus = "placed" | "paid" | "shipped" | "cancelled";

export interface Order {
  id: string;
  customerId: string;
  status: OrderStatus;
  totalPence: number;
  placedAt: Date;
  cancelledAt: Date | null;
  refundedAt: Date | null;
}
