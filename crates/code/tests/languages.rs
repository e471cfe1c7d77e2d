//! The index on small, real-looking sources of each language: a used name's
//! definition is found in another file; the uses of a changed enum, field and
//! function are found; a name that merely shares a word is not.

#![cfg(feature = "grammars")]
use gauntlet_code::{Index, Kind, Role};

fn index(files: &[(&str, &str)]) -> Index {
    let mut index = Index::default();
    index.add_all(files);
    index
}

/// `(path, line)` of every use of `name`.
fn uses(index: &Index, name: &str) -> Vec<(String, u32)> {
    index.uses(name).map(|u| (u.path.to_string(), u.line)).collect()
}

fn defined(index: &Index, name: &str) -> Vec<(String, Kind, u32, u32)> {
    index
        .definitions(name)
        .map(|f| (f.path.to_string(), f.definition.kind, f.definition.start, f.definition.end))
        .collect()
}

fn has(list: &[(String, u32)], path: &str, line: u32) -> bool {
    list.iter().any(|(p, l)| p == path && *l == line)
}

const RS_MODEL: &str = "\
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShipmentStatus {
    Pending,
    Shipped,
    Delivered,
}

pub struct Shipment {
    pub id: u64,
    pub status: ShipmentStatus,
}

pub struct Rest {
    pub millis: u64,
}

pub fn mark_shipped(s: &mut Shipment) {
    s.status = ShipmentStatus::Shipped;
}
";

const RS_REPORT: &str = "\
use crate::model::{mark_shipped, Shipment, ShipmentStatus};

pub fn label(s: &Shipment) -> &'static str {
    match s.status {
        ShipmentStatus::Pending => \"pending\",
        ShipmentStatus::Shipped => \"on its way\",
        ShipmentStatus::Delivered => \"delivered\",
    }
}

pub fn ship_all(list: &mut [Shipment]) {
    let (first, rest) = list.split_at_mut(1);
    mark_shipped(&mut first[0]);
    for s in rest {
        mark_shipped(s);
    }
}
";

#[test]
fn rust_definitions_uses_and_no_word_matches() {
    let ix = index(&[("src/model.rs", RS_MODEL), ("src/report.rs", RS_REPORT)]);
    assert_eq!(defined(&ix, "ShipmentStatus"), [("src/model.rs".into(), Kind::Type, 1, 6)]);
    assert_eq!(defined(&ix, "mark_shipped"), [("src/model.rs".into(), Kind::Function, 17, 19)]);
    assert_eq!(defined(&ix, "Shipped")[0].1, Kind::Member);
    assert_eq!(defined(&ix, "status")[0].1, Kind::Field);
    let status = uses(&ix, "ShipmentStatus");
    assert!(has(&status, "src/report.rs", 5) && has(&status, "src/report.rs", 7), "match sites: {status:?}");
    assert!(has(&uses(&ix, "Shipped"), "src/report.rs", 6));
    assert!(has(&uses(&ix, "status"), "src/report.rs", 4), "the field read");
    assert!(ix.uses("status").any(|u| u.path == "src/report.rs" && u.role == Role::Member));
    let calls = uses(&ix, "mark_shipped");
    assert!(has(&calls, "src/report.rs", 13) && has(&calls, "src/report.rs", 15), "{calls:?}");
    assert!(uses(&ix, "Rest").is_empty(), "the local `rest` is not the type `Rest`: {:?}", uses(&ix, "Rest"));
    let report = ix.file("src/report.rs").unwrap();
    assert_eq!(report.enclosing(6).map(|d| d.name.as_str()), Some("label"));
}

const PY_MODELS: &str = "\
from dataclasses import dataclass
from enum import Enum

MAX_BATCH = 500


class Unit(Enum):
    GRAMS = 1
    KILOGRAMS = 2


@dataclass
class Reading:
    sensor: str
    total: int
    unit: Unit = Unit.GRAMS

    def in_grams(self) -> int:
        return self.total * 1000 if self.unit == Unit.KILOGRAMS else self.total
";

const PY_REPORT: &str = "\
from models import MAX_BATCH, Reading, Unit


def daily_sum(readings: list[Reading]) -> int:
    subtotal = 0
    for r in readings[:MAX_BATCH]:
        subtotal += r.total
    return subtotal


def heaviest(readings):
    rest = sorted(readings, key=lambda r: r.in_grams())
    return rest[-1] if rest else None


def as_row(r: Reading) -> dict:
    return {\"total\": r.total, \"unit\": r.unit.name}
";

#[test]
fn python_definitions_uses_and_no_word_matches() {
    let ix = index(&[("app/models.py", PY_MODELS), ("app/report.py", PY_REPORT)]);
    assert_eq!(defined(&ix, "MAX_BATCH"), [("app/models.py".into(), Kind::Constant, 4, 4)]);
    assert_eq!(defined(&ix, "Reading")[0], ("app/models.py".into(), Kind::Type, 12, 19));
    assert_eq!(defined(&ix, "in_grams")[0].1, Kind::Method);
    assert_eq!(defined(&ix, "total")[0].1, Kind::Field);
    assert_eq!(defined(&ix, "KILOGRAMS")[0].1, Kind::Member, "a member of an Enum subclass");
    assert_eq!(defined(&ix, "sensor")[0].1, Kind::Field, "a dataclass attribute stays a field");
    let total = uses(&ix, "total");
    assert!(has(&total, "app/report.py", 7) && has(&total, "app/report.py", 17), "readers of `total`: {total:?}");
    assert!(!has(&total, "app/report.py", 5), "`subtotal` shares a word, not the field");
    assert!(has(&uses(&ix, "Unit"), "app/report.py", 1));
    assert!(has(&uses(&ix, "in_grams"), "app/report.py", 12));
    assert!(uses(&ix, "Rest").is_empty());
    let models = ix.file("app/models.py").unwrap();
    assert_eq!(models.enclosing(19).map(|d| (d.name.as_str(), d.start)), Some(("in_grams", 18)));
}

const TS_TYPES: &str = "\
export enum OrderState {
  Open = 0,
  Paid,
  Refunded,
}

export interface Order {
  id: string;
  totalCents: number;
  state: OrderState;
}

export type Rest = { retryAfter: number };

export function isSettled(o: Order): boolean {
  return o.state === OrderState.Paid;
}
";

const TS_VIEW: &str = "\
import { Order, OrderState, isSettled } from './types';

export const badge = (o: Order): string => {
  switch (o.state) {
    case OrderState.Paid:
      return 'paid';
    case OrderState.Refunded:
      return 'refunded';
    default:
      return isSettled(o) ? 'done' : 'open';
  }
};

export function sum(orders: Order[]): number {
  const [head, ...rest] = orders;
  return rest.reduce((acc, o) => acc + o.totalCents, head?.totalCents ?? 0);
}
";

#[test]
fn typescript_definitions_uses_and_no_word_matches() {
    let ix = index(&[("src/types.ts", TS_TYPES), ("src/view.tsx", TS_VIEW)]);
    assert_eq!(defined(&ix, "OrderState")[0], ("src/types.ts".into(), Kind::Type, 1, 5));
    assert_eq!(defined(&ix, "Paid")[0].1, Kind::Member);
    assert_eq!(defined(&ix, "totalCents")[0].1, Kind::Field);
    assert_eq!(defined(&ix, "isSettled")[0].1, Kind::Function);
    assert_eq!(defined(&ix, "badge")[0].1, Kind::Function);
    assert!(has(&uses(&ix, "Paid"), "src/view.tsx", 5));
    assert!(has(&uses(&ix, "OrderState"), "src/view.tsx", 7));
    assert!(has(&uses(&ix, "totalCents"), "src/view.tsx", 16));
    assert!(has(&uses(&ix, "isSettled"), "src/view.tsx", 10));
    assert!(uses(&ix, "Rest").is_empty(), "{:?}", uses(&ix, "Rest"));
    assert_eq!(ix.file("src/view.tsx").unwrap().lang, Some(gauntlet_code::Lang::Tsx));
}

const JS_CLIENT: &str = "\
export class ReceiptClient {
  constructor(base) {
    this.base = base;
  }

  async fetchReceipt(id) {
    const res = await fetch(`${this.base}/api/receipts/${id}`);
    const body = await res.json();
    return { total: body.total_cents / 100, name: body.display_name };
  }
}
";

const JS_PAGE: &str = "\
import { ReceiptClient } from './client.js';

const client = new ReceiptClient('/');

export async function render(id, el) {
  const r = await client.fetchReceipt(id);
  const rest = el.dataset.rest;
  el.textContent = `${r.name}: ${r.total} ${rest}`;
}
";

#[test]
fn javascript_definitions_uses_and_no_word_matches() {
    let ix = index(&[("web/client.js", JS_CLIENT), ("web/page.js", JS_PAGE)]);
    assert_eq!(defined(&ix, "ReceiptClient")[0].1, Kind::Type);
    assert_eq!(defined(&ix, "fetchReceipt")[0], ("web/client.js".into(), Kind::Method, 6, 10));
    assert!(has(&uses(&ix, "fetchReceipt"), "web/page.js", 6));
    assert!(has(&uses(&ix, "ReceiptClient"), "web/page.js", 3));
    assert!(has(&uses(&ix, "display_name"), "web/client.js", 9), "a wire field read by the client");
    assert!(uses(&ix, "Rest").is_empty());
}

const GO_STORE: &str = "\
package invoices

type Status int

const (
	Draft Status = iota
	Sent
	Paid
)

type Invoice struct {
	ID     string
	Amount int64
	Status Status
}

func (s *Store) MarkPaid(id string) error {
	inv := s.byID[id]
	inv.Status = Paid
	return nil
}
";

const GO_HANDLER: &str = "\
package invoices

import \"net/http\"

func (h *Handler) pay(w http.ResponseWriter, r *http.Request) {
	rest := r.URL.Query().Get(\"rest\")
	if err := h.store.MarkPaid(rest); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	if h.store.byID[rest].Status == Sent {
		w.WriteHeader(http.StatusAccepted)
	}
}
";

#[test]
fn go_definitions_uses_and_no_word_matches() {
    let ix = index(&[("internal/invoices/store.go", GO_STORE), ("internal/invoices/handler.go", GO_HANDLER)]);
    assert_eq!(defined(&ix, "Status")[0].1, Kind::Type);
    assert!(defined(&ix, "Status").iter().any(|d| d.1 == Kind::Field), "the struct field named Status");
    assert_eq!(defined(&ix, "Sent")[0].1, Kind::Constant);
    assert_eq!(defined(&ix, "MarkPaid")[0], ("internal/invoices/store.go".into(), Kind::Method, 17, 21));
    assert!(has(&uses(&ix, "MarkPaid"), "internal/invoices/handler.go", 7));
    assert!(has(&uses(&ix, "Sent"), "internal/invoices/handler.go", 11));
    assert!(has(&uses(&ix, "Status"), "internal/invoices/handler.go", 11));
    assert!(uses(&ix, "Rest").is_empty());
}

const JAVA_PRICING: &str = "\
package com.example.checkout;

public class Pricing {
    public static final int BULK_THRESHOLD = 10;

    private final Tier tier;

    public Pricing(Tier tier) {
        this.tier = tier;
    }

    public long discountCents(Cart cart) {
        if (cart.size() >= BULK_THRESHOLD && tier == Tier.GOLD) {
            return cart.totalCents() / 10;
        }
        return 0;
    }
}
";

const JAVA_TIER: &str = "\
package com.example.checkout;

public enum Tier {
    STANDARD,
    SILVER,
    GOLD
}
";

const JAVA_CHECKOUT: &str = "\
package com.example.checkout;

public class Checkout {
    public long pay(Cart cart, Tier tier) {
        long rest = cart.totalCents() - new Pricing(tier).discountCents(cart);
        return rest;
    }
}
";

#[test]
fn java_definitions_uses_and_no_word_matches() {
    let ix = index(&[
        ("src/main/java/com/example/checkout/Pricing.java", JAVA_PRICING),
        ("src/main/java/com/example/checkout/Tier.java", JAVA_TIER),
        ("src/main/java/com/example/checkout/Checkout.java", JAVA_CHECKOUT),
    ]);
    let checkout = "src/main/java/com/example/checkout/Checkout.java";
    let pricing = "src/main/java/com/example/checkout/Pricing.java";
    assert_eq!(defined(&ix, "GOLD")[0].1, Kind::Member);
    assert_eq!(defined(&ix, "Tier")[0].1, Kind::Type);
    assert_eq!(defined(&ix, "discountCents")[0], (pricing.into(), Kind::Method, 12, 17));
    assert_eq!(defined(&ix, "tier")[0].1, Kind::Field);
    assert!(has(&uses(&ix, "discountCents"), checkout, 5));
    assert!(has(&uses(&ix, "Tier"), checkout, 4));
    assert!(has(&uses(&ix, "GOLD"), pricing, 13));
    assert!(has(&uses(&ix, "BULK_THRESHOLD"), pricing, 13));
    assert!(uses(&ix, "Rest").is_empty());
}

const CS_SHIPMENT: &str = "\
namespace Logistics;

public enum ShipmentStatus
{
    Created,
    InTransit,
    Delivered
}

public class Shipment
{
    public int Id { get; set; }
    public ShipmentStatus Status { get; set; }
    private readonly decimal weightKg;

    public bool IsOpen() => Status != ShipmentStatus.Delivered;
}
";

const CS_CLIENT: &str = "\
namespace Logistics.Api;

public class TrackingClient
{
    public string Describe(Shipment s)
    {
        var rest = s.Id % 10;
        return s.Status switch
        {
            ShipmentStatus.Created => \"label printed\",
            ShipmentStatus.InTransit => $\"moving ({rest})\",
            _ => s.IsOpen() ? \"open\" : \"done\",
        };
    }
}
";

#[test]
fn csharp_definitions_uses_and_no_word_matches() {
    let ix = index(&[("src/Shipment.cs", CS_SHIPMENT), ("src/Api/TrackingClient.cs", CS_CLIENT)]);
    assert_eq!(defined(&ix, "ShipmentStatus")[0], ("src/Shipment.cs".into(), Kind::Type, 3, 8));
    assert_eq!(defined(&ix, "InTransit")[0].1, Kind::Member);
    assert_eq!(defined(&ix, "Status")[0].1, Kind::Field);
    assert_eq!(defined(&ix, "weightKg")[0].1, Kind::Field);
    assert_eq!(defined(&ix, "IsOpen")[0].1, Kind::Method);
    let client = "src/Api/TrackingClient.cs";
    assert!(has(&uses(&ix, "ShipmentStatus"), client, 10));
    assert!(has(&uses(&ix, "InTransit"), client, 11));
    assert!(has(&uses(&ix, "Status"), client, 8));
    assert!(has(&uses(&ix, "IsOpen"), client, 12));
    assert!(uses(&ix, "Rest").is_empty());
}

#[test]
fn files_without_a_grammar_fall_back_to_line_heuristics() {
    let ruby = "class Invoice\n  def total\n    @lines.sum(&:amount)\n  end\nend\n";
    let caller = "def bill(inv)\n  charge(inv.total)\nend\n";
    let ix = index(&[("app/invoice.rb", ruby), ("app/bill.rb", caller)]);
    assert_eq!(ix.file("app/invoice.rb").unwrap().lang, None);
    assert_eq!(defined(&ix, "total")[0], ("app/invoice.rb".into(), Kind::Method, 2, 4));
    assert!(has(&uses(&ix, "total"), "app/bill.rb", 2));
}

#[test]
fn routes_are_definitions_spanning_their_handler() {
    let py = "from fastapi import FastAPI\n\napp = FastAPI()\n\n\n@app.get(\"/orders/{order_id}\")\ndef show(order_id: int):\n    return {\"id\": order_id}\n";
    let ix = index(&[("api/main.py", py)]);
    let routes = defined(&ix, "/orders/{order_id}");
    assert_eq!(routes, [("api/main.py".into(), Kind::Route, 6, 8)]);
}

#[test]
fn the_enclosing_region_of_a_line_is_the_innermost_definition() {
    let at = |line| gauntlet_code::enclosing("app/models.py", PY_MODELS, line).map(|d| (d.name, d.start, d.end));
    assert_eq!(at(19), Some(("in_grams".to_string(), 18, 19)));
    assert_eq!(at(15), Some(("Reading".to_string(), 12, 19)), "a field line sits in its class");
    assert_eq!(at(4), None, "a module constant sits in nothing");
}
