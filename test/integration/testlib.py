"""What the integration suites share: the test registry, checks, and the run loop that ends
with "N passed, N failed". Each test gets a scratch directory, kept when it fails."""

import os
import shutil
import tempfile
import time
import traceback


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


class Suite:
    def __init__(self, prefix):
        self.prefix = prefix
        self.tests = []

    def test(self, fn):
        self.tests.append(fn)
        return fn

    def run(self, names):
        """Runs the tests (those named, when names is not empty); returns the exit status."""
        passed = failed = 0
        for fn in self.tests:
            if names and fn.__name__ not in names:
                continue
            tmp = tempfile.mkdtemp(prefix=self.prefix)
            t0 = time.time()
            try:
                fn(tmp)
                passed += 1
                shutil.rmtree(tmp, ignore_errors=True)
            except Exception as e:  # noqa: BLE001 - report every kind of failure
                failed += 1
                print("FAIL %s: %s" % (fn.__name__,
                                       e if isinstance(e, Failure) else traceback.format_exc()))
                print("  (logs kept in %s)" % tmp)
            if os.environ.get("WH_TEST_VERBOSE"):
                print("  %s %.2fs" % (fn.__name__, time.time() - t0))
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
