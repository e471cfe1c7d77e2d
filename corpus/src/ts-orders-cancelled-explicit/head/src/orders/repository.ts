import type { Db } from "../db.js";
import type { Order } from "./types.js";

export interface ListOrdersOptions {
  /** Only orders placed at or after this time. */
  since?: Date;
  /** Whether cancelled orders are part of the answer (they are not, unless asked). */
  includeCancelled?: boolean;
  limit?: number;
}

export async function listOrders(
  db: Db,
  { since, includeCancelled = false, limit = 500 }: ListOrdersOptions = {},
): Promise<Order[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (since) {
    params.push(since);
    where.push(`placed_at >= $${params.length}`);
  }
  if (!includeCancelled) {
    where.push("status <> 'cancelled'");
  }
  params.push(limit);
  const sql =
    "SELECT id, customer_id, status, total_pence, placed_at, cancelled_at, refunded_at FROM orders" +
    (where.length ? ` WHERE ${where.join(" AND ")}` : "") +
    ` ORDER BY placed_at DESC LIMIT $${params.length}`;
  const { rows } = await db.query(sql, params);
  return rows.map(toOrder);
}

function toOrder(row: Record<string, unknown>): Order {
  return {
    id: String(row.id),
    customerId: String(row.customer_id),
    status: row.status as Order["status"],
    totalPence: Number(row.total_pence),
    placedAt: row.placed_at as Date,
    cancelledAt: (row.cancelled_at as Date | null) ?? null,
    refundedAt: (row.refunded_at as Date | null) ?? null,
  };
}
