"""Circuit breaker for the jtrace server: after ``threshold`` failed requests in a row it stops
sending for ``cooldown`` seconds, then lets one trial request through; a success closes it again.
Between failures while closed, sends back off exponentially so an outage costs few requests."""

from __future__ import annotations

from typing import Callable

MAX_BACKOFF = 30.0
_BASE_BACKOFF = 0.25


class Breaker:
    """Opens after ``threshold`` failures in a row for ``cooldown`` seconds, then one trial request."""

    def __init__(self, threshold: int, cooldown: float, on_open: Callable[[int], None]) -> None:
        self.threshold, self.cooldown, self.on_open = threshold, cooldown, on_open
        self.failures = 0
        self.open_until = 0.0
        self.next_attempt = 0.0
        self.state = "closed"

    def wait(self, now: float) -> float:
        return max(0.0, (self.open_until if self.state == "open" else self.next_attempt) - now)

    def can_send(self, now: float) -> bool:
        if self.state == "open":
            if now < self.open_until:
                return False
            self.state = "half-open"
            return True
        return now >= self.next_attempt

    def success(self) -> None:
        self.failures, self.next_attempt, self.state = 0, 0.0, "closed"

    def failure(self, now: float) -> None:
        self.failures += 1
        if self.state == "half-open" or self.failures >= self.threshold:
            self.state = "open"
            self.open_until = now + self.cooldown
            self.on_open(self.failures)
            return
        self.next_attempt = now + min(MAX_BACKOFF, _BASE_BACKOFF * 2 ** (self.failures - 1))
