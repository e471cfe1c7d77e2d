from stocksync.db import StockEvent
from stocksync.sync import run_once


class FakeDb:
    def __init__(self, events):
        self.events = events
        self.settings = {}

    def events_after(self, event_id, limit):
        return [e for e in self.events if e.id > event_id][:limit]

    def get_setting(self, key):
        return self.settings.get(key)

    def set_setting(self, key, value):
        self.settings[key] = value


class RecordingClient:
    def __init__(self):
        self.batches = []

    def push_stock(self, payload):
        self.batches.append(payload)


def test_sends_every_event_once_and_moves_the_cursor():
    db = FakeDb([StockEvent(i, f"sku-{i}", i) for i in range(1, 251)])
    client = RecordingClient()
    assert run_once(db, client) == 250
    assert [len(b) for b in client.batches] == [100, 100, 50]
    assert db.settings["stocksync.cursor"] == "250"


def test_resumes_after_the_cursor():
    db = FakeDb([StockEvent(i, f"sku-{i}", i) for i in range(1, 11)])
    db.settings["stocksync.cursor"] = "7"
    client = RecordingClient()
    assert run_once(db, client) == 3
