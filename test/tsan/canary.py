"""make tsan's self-check: two Python threads run canary.c's deliberate
race (in the library given as the first argument, built with
-fsanitize=thread). Under ThreadSanitizer with halt_on_error=1 the process
dies with a report; reaching the end means the race went unreported."""

import ctypes
import sys
import threading

library = ctypes.CDLL(sys.argv[1])
threads = [threading.Thread(target=library.canary_race) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("the deliberate race in test/tsan/canary.c was not reported")
