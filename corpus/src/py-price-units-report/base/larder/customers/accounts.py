"""Customer accounts: sign-up, sign-in and the marketing opt-in."""

import hashlib
import hmac
import os
import re
from dataclasses import dataclass
from datetime import datetime

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
MIN_PASSWORD = 10


class AccountError(Exception):
    """Something the customer has to change before the account can be saved."""


@dataclass
class Customer:
    id: str
    email: str
    name: str
    created_at: datetime
    marketing_opt_in: bool = False


def normalise_email(email: str) -> str:
    email = email.strip().lower()
    if not EMAIL.match(email):
        raise AccountError(f"{email!r} does not look like an email address")
    return email


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)
    return f"{salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    salt_hex, _, digest_hex = stored.partition("$")
    candidate = hash_password(password, bytes.fromhex(salt_hex)).partition("$")[2]
    return hmac.compare_digest(candidate, digest_hex)


def sign_up(conn, email: str, name: str, password: str, opt_in: bool = False) -> Customer:
    email = normalise_email(email)
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"choose a password of at least {MIN_PASSWORD} characters")
    if conn.execute("SELECT 1 FROM customers WHERE email = %s", (email,)).fetchone():
        raise AccountError("an account with that email already exists; sign in or reset the password")
    row = conn.execute(
        "INSERT INTO customers (id, email, name, password_hash, marketing_opt_in) "
        "VALUES (gen_random_uuid()::text, %s, %s, %s, %s) RETURNING id, created_at",
        (email, name.strip(), hash_password(password), opt_in),
    ).fetchone()
    return Customer(row["id"], email, name.strip(), row["created_at"], opt_in)


def sign_in(conn, email: str, password: str) -> Customer | None:
    row = conn.execute(
        "SELECT id, email, name, created_at, marketing_opt_in, password_hash FROM customers WHERE email = %s",
        (normalise_email(email),),
    ).fetchone()
    if row is None or not check_password(password, row.pop("password_hash")):
        return None
    return Customer(**row)
