import pytest

from stocksync.client import StorefrontError
from stocksync.sync import ATTEMPTS, push_with_retry


class FlakyClient:
    def __init__(self, failures):
        self.failures = failures
        self.calls = 0

    def push_stock(self, payload):
        self.calls += 1
        if self.calls <= self.failures:
            raise StorefrontError("HTTP 503: busy")


def test_a_transient_failure_is_retried():
    client = FlakyClient(failures=1)
    push_with_retry(client, [{"sku": "a"}], sleep=lambda s: None)
    assert client.calls == 2


def test_the_last_failure_propagates():
    client = FlakyClient(failures=ATTEMPTS)
    with pytest.raises(StorefrontError):
        push_with_retry(client, [{"sku": "a"}], sleep=lambda s: None)
    assert client.calls == ATTEMPTS
