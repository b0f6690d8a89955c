"""Draining a queue of charges from several threads (concurrent)."""
import queue
import threading
from typing import List


def drain(items: List[int], workers: int = 4) -> List[int]:
    q: "queue.Queue[int]" = queue.Queue()
    for item in items:
        q.put(item)
    done: List[int] = []
    lock = threading.Lock()

    def work() -> None:
        while True:
            try:
                item = q.get_nowait()
            except queue.Empty:
                return
            with lock:
                done.append(item)

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return done
