import type { Request, Response } from "express";
import { findOrders } from "./repository.js";

export const DEFAULT_PAGE_SIZE = 20;

export interface Page<T> {
  items: T[];
  page: number;
  hasMore: boolean;
}

export class BadPageError extends Error {}

/** Pages are numbered from 1, as the mobile app shows them. */
export function parsePage(query: Request["query"]): { page: number; size: number } {
  const page = Number(query.page ?? 1);
  const size = Number(query.size ?? DEFAULT_PAGE_SIZE);
  if (!Number.isInteger(page) || page < 1) {
    throw new BadPageError(`page must be a whole number from 1, not ${query.page}`);
  }
  return { page, size };
}

export async function listOrders(req: Request, res: Response): Promise<void> {
  const customerId = res.locals.customerId as string;
  let parsed;
  try {
    parsed = parsePage(req.query);
  } catch (e) {
    if (e instanceof BadPageError) {
      res.status(400).json({ error: e.message });
      return;
    }
    throw e;
  }
  const { page, size } = parsed;
  const offset = page * size;
  // One extra row tells whether another page follows.
  const rows = await findOrders(customerId, size + 1, offset);
  const body: Page<(typeof rows)[number]> = {
    items: rows.slice(0, size),
    page,
    hasMore: rows.length > size,
  };
  res.json(body);
}
