import { isFinished, ShipmentStatus, statusLabel } from "./shipmentStatus";

interface ShipmentDto {
  trackingCode: string;
  status: ShipmentStatus;
  updatedAt: string;
  history: { status: ShipmentStatus; at: string; note: string | null }[];
}

const POLL_MS = 60_000;

export async function showTracking(code: string, postcode: string, root: HTMLElement): Promise<void> {
  const url = `/api/shipments/${encodeURIComponent(code)}?postcode=${encodeURIComponent(postcode)}`;
  const resp = await fetch(url);
  if (resp.status === 404) {
    root.textContent = "We could not find a parcel with that code and postcode.";
    return;
  }
  const shipment: ShipmentDto = await resp.json();
  root.replaceChildren(heading(shipment), timeline(shipment));
  if (shipment.status === ShipmentStatus.OutForDelivery) {
    root.append(note("Your driver will be with you today."));
  }
  if (!isFinished(shipment.status)) {
    setTimeout(() => void showTracking(code, postcode, root), POLL_MS);
  }
}

function heading(s: ShipmentDto): HTMLElement {
  const h = document.createElement("h1");
  h.textContent = `${statusLabel[s.status] ?? "Status unknown"} · ${s.trackingCode}`;
  return h;
}

function timeline(s: ShipmentDto): HTMLElement {
  const list = document.createElement("ol");
  for (const e of s.history) {
    const item = document.createElement("li");
    item.textContent = `${new Date(e.at).toLocaleString()} ${statusLabel[e.status]}${e.note ? ` (${e.note})` : ""}`;
    list.append(item);
  }
  return list;
}

function note(text: string): HTMLElement {
  const p = document.createElement("p");
  p.textContent = text;
  return p;
}
