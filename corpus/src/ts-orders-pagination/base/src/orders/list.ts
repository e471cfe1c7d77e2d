import type { Request, Response } from "express";
import { findOrders } from "./repository.js";

export const DEFAULT_PAGE_SIZE = 20;

export interface Page<T> {
  items: T[];
  page: number;
  hasMore: boolean;
}

/** Pages are numbered from 0. */
export function parsePage(query: Request["query"]): { page: number; size: number } {
  const page = Number(query.page ?? 0);
  const size = Number(query.size ?? DEFAULT_PAGE_SIZE);
  return { page, size };
}

export async function listOrders(req: Request, res: Response): Promise<void> {
  const customerId = res.locals.customerId as string;
  const { page, size } = parsePage(req.query);
  // One extra row tells whether another page follows.
  const rows = await findOrders(customerId, size + 1, page * size);
  const body: Page<(typeof rows)[number]> = {
    items: rows.slice(0, size),
    page,
    hasMore: rows.length > size,
  };
  res.json(body);
}
