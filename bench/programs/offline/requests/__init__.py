"""The runner has no network: ``requests.get(url)`` answers from the fabricated data directory
(``PROGRAMS_OFFLINE_DIR``), the file named as the URL's last part (gcn downloads cora.tgz on
every run). Only on the PYTHONPATH of clients marked ``offline``."""
import io
import os


class Response:
    def __init__(self, url):
        name = url.rstrip("/").rsplit("/", 1)[-1]
        path = os.path.join(os.environ["PROGRAMS_OFFLINE_DIR"], name)
        with open(path, "rb") as f:
            self.content = f.read()
        self.url, self.status_code = url, 200
        self.raw = io.BytesIO(self.content)

    def raise_for_status(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.raw.close()


def get(url, **kwargs):
    del kwargs
    return Response(url)
