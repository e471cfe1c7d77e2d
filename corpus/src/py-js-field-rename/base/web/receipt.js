// Renders the receipt page from GET /api/orders/:id.

const money = (cents) => (cents / 100).toLocaleString("en-GB", { style: "currency", currency: "GBP" });

export async function showReceipt(orderId, root) {
  const resp = await fetch(`/api/orders/${encodeURIComponent(orderId)}`, { credentials: "same-origin" });
  if (!resp.ok) {
    root.textContent = "We could not find this order.";
    return;
  }
  const order = await resp.json();
  const rows = order.lines
    .map((l) => `<tr><td>${escapeHtml(l.name)}</td><td>${l.quantity}</td><td>${money(l.unit_cents)}</td></tr>`)
    .join("");
  root.innerHTML = `
    <h1>Order ${escapeHtml(order.id)}</h1>
    <table>${rows}</table>
    <p>Discount: ${money(order.discount_cents)}</p>
    <p class="total">Total paid: ${money(order.total_cents)}</p>`;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
