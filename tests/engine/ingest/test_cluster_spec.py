"""Where cluster ingest runs: ``--cluster`` addresses and options, refused with the exact line a user sees."""

from __future__ import annotations

import pytest

from engine.errors import ParameterError
from engine.ingest.cluster import ClusterSpec, parse_cluster


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("local:2", ClusterSpec(local_workers=2)),
        ("tcp://10.0.0.5:8786", ClusterSpec(address="tcp://10.0.0.5:8786")),
        ("sched.example.org:8786", ClusterSpec(address="tcp://sched.example.org:8786")),
        ("tls://sched:8786", ClusterSpec(address="tls://sched:8786")),
    ],
    ids=["local", "tcp", "bare-host-port", "tls"],
)
def test_cluster_addresses(text: str, expected: ClusterSpec) -> None:
    assert parse_cluster(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("local:0", "--cluster 'local:0': expected local:N with N a whole number of at least 1"),
        ("local:x", "--cluster 'local:x': expected local:N with N a whole number of at least 1"),
        ("local", "--cluster 'local': expected local:N with N a whole number of at least 1"),
        ("sched", "--cluster 'sched': expected local:N or a scheduler address such as tcp://host:8786"),
        ("http://sched:8786", "--cluster 'http://sched:8786': expected local:N or a scheduler address such as tcp://host:8786"),
        ("tcp://sched:port", "--cluster 'tcp://sched:port': expected local:N or a scheduler address such as tcp://host:8786"),
        # A superscript two is a digit to str.isdigit but not a number to int().
        ("local:²", "--cluster 'local:²': expected local:N with N a whole number of at least 1"),
        ("tcp://sched:8²", "--cluster 'tcp://sched:8²': expected local:N or a scheduler address such as tcp://host:8786"),
        # More digits than int() converts (4,300) or a worker count could ever be.
        ("local:" + "9" * 5000, f"--cluster {'local:' + '9' * 5000!r}: expected local:N with N a whole number of at least 1"),
    ],
    ids=["zero-workers", "not-a-number", "no-count", "no-port", "http", "port-not-a-number", "superscript-count",
         "superscript-port", "5000-digit-count"],
)
def test_bad_cluster_addresses_are_refused(text: str, message: str) -> None:
    with pytest.raises(ParameterError) as err:
        parse_cluster(text)
    assert str(err.value) == message


def test_bad_cluster_options_are_refused() -> None:
    with pytest.raises(ParameterError, match="--retries must be 0 or more, got -1"):
        ClusterSpec(local_workers=1, retries=-1)
    with pytest.raises(ParameterError, match="--send-audio must be one of auto, always, never, got 'sometimes'"):
        ClusterSpec(local_workers=1, send_audio="sometimes")
