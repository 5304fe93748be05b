"""Exponea's own Python client (exponea-python-sdk) against `segments-bench serve`.

Usage: exponea_sdk_check.py BASE_URL PROJECT_TOKEN KEY_ID SECRET

The server must run with `--token PROJECT_TOKEN --basic-auth KEY_ID:SECRET --demo-rules`. Every
call goes through the SDK (HTTP Basic auth with the key pair, as the SDK always sends), except the
final segments fetch, which the SDK has no call for: it checks that the tracked events reached the
mock's model. Exits 0 when every check passes, 1 otherwise, printing one line per check.
"""

import sys
import time

import requests
from exponea_python_sdk import Exponea
from exponea_python_sdk.exceptions import APIException

# The demo rule of `serve --demo-rules`: three `purchase` events enter this discovery segment.
DEMO_SEGMENT_ID = "66140257f4cb337324209871"


def main():
    base_url, token, key_id, secret = sys.argv[1:5]
    client = Exponea(token, username=key_id, password=secret, url=base_url, request_timeout=10)
    tracking = client.tracking
    cookie = "sdk-check-cookie"
    ids = {"cookie": cookie, "registered": "sdk-check@example.com"}
    failures = []

    def check(name, condition, detail=""):
        print(("ok    " if condition else "FAIL  ") + name + (f": {detail}" if detail else ""))
        if not condition:
            failures.append(name)

    def attempt(call):
        """The call's result, or the text of the APIException it raised."""
        try:
            return call()
        except APIException as error:
            return f"APIException: {error}"

    # Basic auth with a wrong secret: the SDK raises with the server's message (and would log the
    # answer as an error, which is expected here).
    wrong = Exponea(token, username=key_id, password=secret + "-wrong", url=base_url, request_timeout=10)
    wrong.logger.disabled = True
    try:
        wrong.tracking.get_system_time()
        check("wrong secret is refused", False, "no exception")
    except APIException as error:
        check("wrong secret is refused", "secret" in str(error), str(error))
    finally:
        wrong.logger.disabled = False

    # System time: a number of seconds since 1970, from the server's clock.
    server_time = attempt(tracking.get_system_time)
    check(
        "system time",
        isinstance(server_time, (int, float)) and abs(server_time - time.time()) < 300,
        repr(server_time),
    )

    # Events: one with a timestamp, one without (the SDK sends "timestamp": null).
    result = attempt(
        lambda: tracking.add_event(ids, "purchase", properties={"price": 9.99}, timestamp=time.time()),
    )
    check("event with timestamp", result is True, repr(result))
    result = attempt(lambda: tracking.add_event(ids, "purchase"))
    check("event without timestamp", result is True, repr(result))

    # Customer properties.
    result = attempt(
        lambda: tracking.update_customer_properties(ids, {"tier": "gold", "visits": 3}),
    )
    check("update customer properties", result is True, repr(result))

    # A batch with one bad command: only that one fails.
    commands = [
        tracking.add_event(ids, "purchase", properties={"price": 1}, batch=True),
        {"name": "customers/unknown", "data": {"customer_ids": ids}},
        tracking.update_customer_properties(ids, {"tier": "platinum"}, batch=True),
        tracking.get_system_time(batch=True),
    ]
    results = attempt(lambda: tracking.batch_commands(commands))
    check(
        "batch with one bad command",
        isinstance(results, list)
        and results[:3] == [True, False, True]
        and isinstance(results[3], (int, float))
        and len(results) == 4,
        repr(results),
    )

    # The three purchases reached the model: the demo rule put the customer in its segment.
    response = requests.get(
        f"{base_url}/webxp/projects/{token}/segments",
        params={"cookie": cookie},
        auth=(key_id, secret),
        timeout=10,
    )
    segments = response.json().get("discovery", []) if response.status_code == 200 else []
    check(
        "events reached the model",
        any(segment.get("id") == DEMO_SEGMENT_ID for segment in segments),
        f"HTTP {response.status_code} {response.text}",
    )

    if failures:
        print(f"{len(failures)} check(s) failed: {', '.join(failures)}")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
