"""Where product photos live. The CDN serves them; we only build the addresses."""

from urllib.parse import quote

CDN = "https://img.larder.example"
SIZES = {"thumb": 160, "card": 480, "full": 1200}


def image_url(sku: str, size: str = "card") -> str:
    if size not in SIZES:
        raise ValueError(f"unknown image size {size!r}: one of {', '.join(SIZES)}")
    return f"{CDN}/{SIZES[size]}/{quote(sku)}.webp"


def srcset(sku: str) -> str:
    return ", ".join(f"{image_url(sku, name)} {width}w" for name, width in SIZES.items())
