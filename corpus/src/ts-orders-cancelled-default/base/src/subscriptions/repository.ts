import type { Db } from "../db.js";

export interface Subscription {
  id: string;
  customerId: string;
  plan: "monthly" | "yearly";
  cancelled: boolean;
}

/** Subscriptions of one customer; cancelled ones are history and usually hidden. */
export async function listSubscriptions(
  db: Db,
  customerId: string,
  { includeCancelled = false }: { includeCancelled?: boolean } = {},
): Promise<Subscription[]> {
  const sql =
    "SELECT id, customer_id, plan, cancelled FROM subscriptions WHERE customer_id = $1" +
    (includeCancelled ? "" : " AND NOT cancelled");
  const { rows } = await db.query(sql, [customerId]);
  return rows.map((r) => ({
    id: String(r.id),
    customerId: String(r.customer_id),
    plan: r.plan,
    cancelled: Boolean(r.cancelled),
  }));
}
