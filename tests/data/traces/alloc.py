# A Python allocation loop on two threads: objects from small to large
# (the large ones are their own mmaps), kept a while and dropped.
import random, threading
def churn(seed, n):
    r = random.Random(seed)
    keep = []
    for i in range(n):
        keep.append(bytearray(r.choice((64, 512, 4096, 65536, 300000, 2000000))))
        if len(keep) > 200:
            del keep[r.randrange(len(keep))]
ts = [threading.Thread(target=churn, args=(s, 25000)) for s in (1, 2)]
for t in ts: t.start()
for t in ts: t.join()
