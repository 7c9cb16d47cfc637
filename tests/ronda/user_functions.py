"""Players' own functions (Q11) the Ronda tests write to files and play."""

from pathlib import Path


def write(tmp_path: Path, name: str, text: str) -> str:
    """``text`` written to ``tmp_path / name``; the path, as a policy entry starts."""
    path = tmp_path / name
    path.write_text(text)
    return str(path)


CHECKSUM = '''
def checksum(obs, legal):
    """The card picked by a checksum of the whole observation: two engines that agree on every
    card of this function agree on every entry of every observation it was shown."""
    s = 0.0
    for i in range(obs.shape[0]):
        s += float(obs[i]) * (i % 97 + 1)
    n = 0
    for c in range(40):
        n += int(legal[c])
    k = int(s * 1000.0) % n
    for c in range(40):
        if legal[c]:
            if k == 0:
                return c
            k -= 1
    return -1
'''


ILLEGAL = '''
def bad(obs, legal):
    """Plays its lowest card once, then card 40 (no card)."""
    for c in range(40):
        if obs[160 + c] > 0.5:
            return 40
    for c in range(40):
        if legal[c]:
            return c
    return -1
'''
