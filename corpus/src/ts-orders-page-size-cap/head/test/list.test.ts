import { describe, expect, it } from "vitest";
import { MAX_PAGE_SIZE, parsePage } from "../src/orders/list.js";

describe("parsePage", () => {
  it("defaults to the first page of the default size", () => {
    expect(parsePage({})).toEqual({ page: 0, size: 20 });
  });

  it("lowers an oversized page to the maximum", () => {
    expect(parsePage({ page: "2", size: "5000" })).toEqual({ page: 2, size: MAX_PAGE_SIZE });
  });

  it("rejects negative pages and empty sizes", () => {
    expect(parsePage({ page: "-1" })).toBeUndefined();
    expect(parsePage({ size: "0" })).toBeUndefined();
    expect(parsePage({ page: "one" })).toBeUndefined();
  });
});
