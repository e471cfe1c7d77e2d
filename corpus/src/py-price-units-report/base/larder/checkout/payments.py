"""Taking payment through the card provider's API."""

import json
import urllib.request
from dataclasses import dataclass

PROVIDER = "https://pay.provider.example/v1/charges"


class PaymentDeclined(Exception):
    pass


@dataclass(frozen=True)
class Charge:
    id: str
    amount_pence: int


def charge(card_token: str, amount_pence: int, reference: str, api_key: str) -> Charge:
    if amount_pence <= 0:
        raise ValueError(f"refusing to charge {amount_pence} pence for {reference}")
    body = json.dumps({"source": card_token, "amount": amount_pence, "currency": "gbp", "reference": reference})
    req = urllib.request.Request(
        PROVIDER,
        data=body.encode(),
        headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        answer = json.load(resp)
    if answer.get("status") != "succeeded":
        raise PaymentDeclined(answer.get("failure_message", "the card was declined"))
    return Charge(answer["id"], amount_pence)


def refund(charge_id: str, amount_pence: int, reference: str, api_key: str) -> None:
    body = json.dumps({"charge": charge_id, "amount": amount_pence, "reference": reference})
    req = urllib.request.Request(
        PROVIDER.replace("/charges", "/refunds"),
        data=body.encode(),
        headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        answer = json.load(resp)
    if answer.get("status") != "succeeded":
        raise PaymentDeclined(answer.get("failure_message", "the refund was refused"))
