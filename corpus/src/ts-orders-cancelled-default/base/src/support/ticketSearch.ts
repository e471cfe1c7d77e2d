import type { Db } from "../db.js";

export interface TicketQuery {
  text: string;
  includeClosed?: boolean;
}

// Support tickets live in their own table. Searching them never goes through
// listOrders: a ticket keeps the order id as plain text, cancelled or not.
export async function searchTickets(db: Db, query: TicketQuery): Promise<{ id: string; subject: string }[]> {
  const includeCancelled = query.includeClosed ?? false;
  const sql =
    "SELECT id, subject FROM tickets WHERE subject ILIKE $1" + (includeCancelled ? "" : " AND state <> 'closed'");
  const { rows } = await db.query(sql, [`%${query.text}%`]);
  return rows.map((r) => ({ id: String(r.id), subject: String(r.subject) }));
}
