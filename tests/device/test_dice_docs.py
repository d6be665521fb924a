"""docs/dice-protocol.md stays true: its checksums, its JSON, its C and its Arduino sketch."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nardy.device.decoder import HubDecoder
from nardy.device.events import Connected, Roll, event_from_json
from nardy.device.protocol import BadLine, Message, Parser, crc16

DOC = Path(__file__).resolve().parents[2] / "docs" / "dice-protocol.md"
LINE = re.compile(r"\$[A-Z][A-Z0-9_]*\??(?:,[a-z][a-z0-9_]*=[^*$\n]*?)*\*[0-9A-F]{4}")


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def code_block(language: str, index: int = 0) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", doc_text(), flags=re.S)
    assert len(blocks) > index, f"no ```{language} block number {index} in {DOC}"
    return str(blocks[index])


def test_every_checksum_in_the_document_is_right_except_the_deliberate_one() -> None:
    lines = LINE.findall(doc_text())
    assert len(lines) >= 20
    wrong = [line for line in lines if not line.endswith("*0000")]
    for line in wrong:
        Message.from_line(line)  # raises FrameError("bad checksum", ...) if the page is wrong
    deliberate = [line for line in lines if line.endswith("*0000")]
    assert deliberate and all(crc16(line[1:-5].encode()) != 0 for line in deliberate)


def test_the_json_examples_are_events() -> None:
    examples = [line for line in code_block("json").splitlines() if line.strip()]
    kinds = {event_from_json(json.loads(line)).type for line in examples}
    assert kinds == {"connected", "rolling", "roll", "tilt", "battery", "disconnected", "error"}


def compiler(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def build_and_run(tmp_path: Path, compiler_name: str, source: str, suffix: str) -> str:
    source_path = tmp_path / f"program{suffix}"
    source_path.write_text(source)
    binary = tmp_path / "program"
    standard = "-std=c11" if suffix == ".c" else "-std=c++17"
    flags = [standard, "-Wall", "-Wextra", "-Werror"]
    build = [compiler(compiler_name), *flags, "-o", str(binary), str(source_path)]
    subprocess.run(build, check=True, capture_output=True, text=True, timeout=60)
    return subprocess.run([str(binary)], check=True, capture_output=True, text=True, timeout=10).stdout


PAYLOADS = ["123456789", "HELLO?", "ROLL,seq=17,d=3-5", "ERR,msg=sensor timeout", ""]


def test_the_c_checksum_matches_python(tmp_path: Path) -> None:
    calls = "\n".join(f'    printf("%04X\\n", nardy_crc16("{p}", strlen("{p}")));' for p in PAYLOADS)
    headers = "#include <stdio.h>\n#include <string.h>\n"
    program = f"{headers}{code_block('c')}\nint main(void) {{\n{calls}\n    return 0;\n}}\n"
    output = build_and_run(tmp_path, "cc", program, ".c").split()
    assert output == [f"{crc16(p.encode()):04X}" for p in PAYLOADS]
    assert output[0] == "29B1"


ARDUINO = """
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
static std::string input;
static std::size_t position = 0;
static unsigned long now = 0;
struct FakeSerial {
  void begin(long) {}
  int available() { return static_cast<int>(input.size() - position); }
  int read() { return position < input.size() ? static_cast<unsigned char>(input[position++]) : -1; }
  void print(const char *text) { std::fputs(text, stdout); }
} Serial;
unsigned long millis() { return now; }
long random(long limit) { return 0x1234567L % limit; }
void randomSeed(unsigned long) {}
int analogRead(int) { return 0; }
static int nextA = 0, nextB = 0;
bool readDice(int *a, int *b) {
  if (!nextA) return false;
  *a = nextA; *b = nextB; nextA = 0;
  return true;
}
"""

ARDUINO_MAIN = """
int main() {
  setup();
  input += "$HELLO?*C851\\r\\n";   // the host opens the port
  loop();
  nextA = 3; nextB = 5;           // a throw settles
  loop();
  input += "$SYNC*FC1C\\n$PING*6427\\n";
  loop();
  now = 1500;                     // quiet for 1.5 s: a heartbeat
  loop();
  return 0;
}
"""


def test_the_arduino_sketch_is_a_working_hub(tmp_path: Path) -> None:
    sketch = code_block("cpp")
    assert len(sketch.splitlines()) <= 50
    output = build_and_run(tmp_path, "c++", ARDUINO + sketch + ARDUINO_MAIN, ".cpp")
    items = Parser().feed(output.encode())
    assert not [item for item in items if isinstance(item, BadLine)], output
    assert [item.type for item in items if isinstance(item, Message)] == ["HELLO", "ROLL", "ROLL", "HB", "HB"]
    hub = HubDecoder(fallback_device="sketch")
    hub.connection_opened()
    events = [event for item in items for event in hub.decode(item)]
    assert events == [Connected("tower-1", 1, "1.0", "01234567"), Roll((3, 5), 1, "tower-1")]
    assert hub.duplicates == 1  # the answer to SYNC
