"""What the integration suites share: the test registry, checks, process bookkeeping, and the
run loop that ends with "N passed, N failed". Each test gets a scratch directory, kept when it
fails."""

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


# Every child process a test starts (servers, fake API servers). Whatever still runs when its
# test ends is killed, and the test fails: a failed test must not leave servers behind.
_live = []


def track(proc):
    """Registers a subprocess.Popen for the end-of-test check; returns it."""
    _live.append(proc)
    return proc


def stop_all(*things):
    """Calls stop() on each thing (None is skipped), every one of them even when an earlier stop
    fails, then raises the first failure."""
    first = None
    for t in things:
        if t is None:
            continue
        try:
            t.stop()
        except Exception as e:  # noqa: BLE001 - stop the rest first, then report
            if first is None:
                first = e
    if first is not None:
        raise first


def _reap():
    """Kills what the test left running; returns their command lines."""
    left = []
    for p in _live:
        if p.poll() is None:
            left.append(" ".join(str(a) for a in p.args[:2]) + " (pid %d)" % p.pid)
            p.kill()
            p.wait()
    del _live[:]
    return left


def _describe(e):
    text = str(e) if isinstance(e, Failure) else traceback.format_exc()
    ctx = e.__context__
    if ctx is not None and not e.__suppress_context__:
        # A cleanup that failed in a finally: block hides the test's own failure: show both.
        text += "\n  (raised while handling: %s)" % (ctx if isinstance(ctx, Failure) else repr(ctx))
    return text


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
            error = None
            try:
                fn(tmp)
            except Exception as e:  # noqa: BLE001 - report every kind of failure
                error = _describe(e)
            left = _reap()
            if left and error is None:
                error = "left running at the end of the test: %s" % ", ".join(left)
            if error is None:
                passed += 1
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                failed += 1
                print("FAIL %s: %s" % (fn.__name__, error))
                print("  (logs kept in %s)" % tmp)
            if os.environ.get("WH_TEST_VERBOSE"):
                print("  %s %.2fs" % (fn.__name__, time.time() - t0))
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
