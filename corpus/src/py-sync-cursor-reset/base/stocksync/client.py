import requests


class StorefrontError(Exception):
    """The storefront refused or failed to take a batch."""


class StorefrontClient:
    def __init__(self, base_url: str, token: str, timeout: float = 10.0):
        self.base_url = base_url.rstrip("/")
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {token}"
        self.timeout = timeout

    def push_stock(self, payload: list[dict]) -> None:
        """Send stock levels; the storefront applies them in order."""
        try:
            resp = self.session.post(f"{self.base_url}/v1/stock", json=payload, timeout=self.timeout)
        except requests.RequestException as exc:
            raise StorefrontError(str(exc)) from exc
        if resp.status_code != 200:
            raise StorefrontError(f"HTTP {resp.status_code}: {resp.text[:200]}")
