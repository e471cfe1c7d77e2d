import { pool, type Order } from "../db.js";

/** Up to `limit` orders of a customer, newest first, skipping the first `offset`. */
export async function findOrders(customerId: string, limit: number, offset: number): Promise<Order[]> {
  const { rows } = await pool.query(
    `SELECT id, customer_id AS "customerId", total_cents AS "totalCents", placed_at AS "placedAt"
       FROM orders WHERE customer_id = $1
      ORDER BY placed_at DESC, id DESC
      LIMIT $2 OFFSET $3`,
    [customerId, limit, offset],
  );
  return rows;
}
