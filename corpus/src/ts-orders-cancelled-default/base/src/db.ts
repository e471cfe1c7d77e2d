import pg from "pg";

export type Db = pg.Pool;

export function connect(url = process.env.DATABASE_URL): Db {
  if (!url) {
    throw new Error("DATABASE_URL is not set: point it at the shop's PostgreSQL database");
  }
  return new pg.Pool({ connectionString: url, max: 5 });
}
