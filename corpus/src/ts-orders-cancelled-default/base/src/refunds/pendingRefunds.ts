import type { Db } from "../db.js";
import { listOrders } from "../orders/repository.js";
import type { Order } from "../orders/types.js";

const REFUND_WINDOW_DAYS = 30;

/**
 * Cancelled orders from the refund window that have not been refunded yet. The
 * nightly refund job pays each of them back and stamps refunded_at.
 */
export async function pendingRefunds(db: Db, now = new Date()): Promise<Order[]> {
  const since = new Date(now.getTime() - REFUND_WINDOW_DAYS * 24 * 60 * 60 * 1000);
  const orders = await listOrders(db, { since, limit: 5000 });
  return orders.filter((o) => o.status === "cancelled" && o.refundedAt === null && o.totalPence > 0);
}

export function refundTotalPence(orders: Order[]): number {
  return orders.reduce((sum, o) => sum + o.totalPence, 0);
}
