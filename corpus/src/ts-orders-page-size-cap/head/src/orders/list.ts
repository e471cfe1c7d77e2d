import type { Request, Response } from "express";
import { findOrders } from "./repository.js";

export const DEFAULT_PAGE_SIZE = 20;
/** Larger pages made the orders query scan too much; clients never need more. */
export const MAX_PAGE_SIZE = 100;

export interface Page<T> {
  items: T[];
  page: number;
  hasMore: boolean;
}

/** Pages are numbered from 0. A size above the maximum is lowered to it. */
export function parsePage(query: Request["query"]): { page: number; size: number } | undefined {
  const page = Number(query.page ?? 0);
  const size = Number(query.size ?? DEFAULT_PAGE_SIZE);
  if (!Number.isInteger(page) || page < 0 || !Number.isInteger(size) || size < 1) {
    return undefined;
  }
  return { page, size: Math.min(size, MAX_PAGE_SIZE) };
}

export async function listOrders(req: Request, res: Response): Promise<void> {
  const customerId = res.locals.customerId as string;
  const parsed = parsePage(req.query);
  if (!parsed) {
    res.status(400).json({ error: "page must be a whole number from 0 and size one from 1" });
    return;
  }
  const { page, size } = parsed;
  // One extra row tells whether another page follows.
  const rows = await findOrders(customerId, size + 1, page * size);
  const body: Page<(typeof rows)[number]> = {
    items: rows.slice(0, size),
    page,
    hasMore: rows.length > size,
  };
  res.json(body);
}
