import type { Db } from "../db.js";
import { listOrders } from "./repository.js";

const money = (pence: number) => `£${(pence / 100).toFixed(2)}`;

/** The support team's "recent orders" table, as rows of cells. */
export async function recentOrdersTable(db: Db, days = 7): Promise<string[][]> {
  const since = new Date(Date.now() - days * 24 * 60 * 60 * 1000);
  const orders = await listOrders(db, { since, limit: 200 });
  return orders.map((o) => [o.id, o.customerId, o.status, money(o.totalPence), o.placedAt.toISOString()]);
}
