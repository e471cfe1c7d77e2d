import type { Db } from "../db.js";
import type { Order } from "../orders/types.js";

/** Records the refund; the payment provider picks refunds up from this table. */
export async function issueRefund(db: Db, order: Order): Promise<void> {
  await db.query("BEGIN");
  try {
    await db.query("INSERT INTO refunds (order_id, amount_pence) VALUES ($1, $2)", [order.id, order.totalPence]);
    await db.query("UPDATE orders SET refunded_at = now() WHERE id = $1", [order.id]);
    await db.query("COMMIT");
  } catch (err) {
    await db.query("ROLLBACK");
    throw err;
  }
}
