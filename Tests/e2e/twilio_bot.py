#!/usr/bin/env python3
"""A media-stream bot written for Twilio, to stand behind VoiceBridge in the e2e suite.

It knows nothing of VoiceBridge beyond the documented `voicebridge` extension messages: it speaks
Twilio Media Streams as any Twilio bot does, and checks the stream it gets as Twilio's docs say it
must look (connected first, start with sequence 1, sequence numbers counting up by one, media
every 20 ms of base64 mu-law, marks echoed after the audio before them played, stop last).

Paths: /bot converses (greeting, a clear test, waits for the caller to speak, answers q1 through
the extension, hangs up through the extension); /bot-close closes the stream normally after its
greeting; /bot-drop closes it with 1011. One JSON line per stream goes to the report file.

usage: twilio_bot.py PORT REPORT.jsonl GREETING.ulaw.wav
"""
import asyncio
import base64
import json
import sys
import time

from websockets.asyncio.server import serve


def read_ulaw_wav(path):
    data = open(path, "rb").read()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", "not a WAV file"
    offset = 12
    while offset + 8 <= len(data):
        chunk, size = data[offset:offset + 4], int.from_bytes(data[offset + 4:offset + 8], "little")
        if chunk == b"data":
            return data[offset + 8:offset + 8 + size]
        offset += 8 + size + (size & 1)
    raise ValueError("no data chunk")


PORT, REPORT, GREETING = int(sys.argv[1]), sys.argv[2], read_ulaw_wav(sys.argv[3])


def is_voiced(payload):
    # mu-law: 0xFF and 0x7F are zero; loud samples have small magnitudes in the low 7 bits.
    loud = sum(1 for b in payload if (b & 0x7F) < 0x50)
    return loud > len(payload) // 4


class Stream:
    def __init__(self, ws):
        self.ws, self.sid = ws, None
        self.report = {"path": ws.request.path, "events": [], "sequence_ok": True, "problems": [],
                       "media": 0, "voiced": 0, "marks": {}, "dtmf": [], "stopped": False}
        self.next_sequence = 1
        self.echoes = {}
        self.silence_after_voice = 0
        self.heard_caller = asyncio.Event()
        self.started = asyncio.Event()

    def problem(self, text):
        self.report["problems"].append(text)

    async def send(self, message):
        message.setdefault("streamSid", self.sid)
        await self.ws.send(json.dumps(message))

    async def play(self, audio, mark):
        for i in range(0, len(audio), 1600):   # 200 ms a message, much faster than real time
            await self.send({"event": "media", "media": {"payload": base64.b64encode(audio[i:i + 1600]).decode()}})
        await self.send({"event": "mark", "mark": {"name": mark}})
        return time.monotonic()

    async def wait_echo(self, name, timeout):
        deadline = time.monotonic() + timeout
        while name not in self.echoes and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return self.echoes.get(name)

    def on_message(self, text):
        m = json.loads(text)
        event = m.get("event")
        self.report["events"].append(event)
        if event == "connected":
            if len(self.report["events"]) != 1:
                self.problem("connected was not first")
            return
        seq = m.get("sequenceNumber")
        if seq != str(self.next_sequence):
            self.report["sequence_ok"] = False
            self.problem(f"{event}: sequenceNumber {seq!r}, expected {self.next_sequence}")
        self.next_sequence += 1
        if event == "start":
            s = m["start"]
            self.sid = m["streamSid"]
            if s["mediaFormat"] != {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1}:
                self.problem(f"mediaFormat {s['mediaFormat']}")
            self.report["custom"] = s["customParameters"]
            self.report["call_sid"] = s["callSid"]
            self.started.set()
        elif event == "media":
            payload = base64.b64decode(m["media"]["payload"])
            self.report["media"] += 1
            if len(payload) != 160:
                self.problem(f"media payload of {len(payload)} bytes")
            if int(m["media"]["chunk"]) != self.report["media"]:
                self.problem(f"chunk {m['media']['chunk']} for media #{self.report['media']}")
            if is_voiced(payload):
                self.report["voiced"] += 1
                self.silence_after_voice = 0
            elif self.report["voiced"] >= 25:
                self.silence_after_voice += 1
                if self.silence_after_voice >= 25:
                    self.heard_caller.set()
        elif event == "mark":
            self.echoes[m["mark"]["name"]] = time.monotonic()
        elif event == "dtmf":
            self.report["dtmf"].append(m["dtmf"]["digit"])
        elif event == "stop":
            self.report["stopped"] = True

    async def converse(self):
        await asyncio.wait_for(self.started.wait(), 10)
        questions = json.loads(self.report["custom"]["questions"])
        await self.send({"event": "voicebridge", "voicebridge": {"type": "transcript", "speaker": "agent", "text": "Hello from the test bot."}})
        sent = await self.play(GREETING, "greeting")
        echoed = await self.wait_echo("greeting", 15)
        self.report["marks"]["greeting"] = None if echoed is None else round(echoed - sent, 3)
        self.report["greeting_seconds"] = round(len(GREETING) / 8000, 3)
        path = self.ws.request.path
        if path == "/bot-close":
            await self.ws.close(1000, "done")
            return
        if path == "/bot-drop":
            await self.ws.close(1011, "bot crashed")
            return
        # Barge-in as a bot does it: 5 s of audio, then clear after 0.6 s; the mark comes back at once.
        await self.play(GREETING * 3, "long")
        await asyncio.sleep(0.6)
        cleared = time.monotonic()
        await self.send({"event": "clear"})
        echoed = await self.wait_echo("long", 5)
        self.report["marks"]["long_after_clear"] = None if echoed is None else round(echoed - cleared, 3)
        # Nothing queued: a mark comes back at once.
        sent = time.monotonic()
        await self.send({"event": "mark", "mark": {"name": "empty"}})
        echoed = await self.wait_echo("empty", 5)
        self.report["marks"]["empty"] = None if echoed is None else round(echoed - sent, 3)
        await self.send({"event": "nonsense", "x": 1})   # counted and ignored, never fatal
        await self.ws.send("{not json")
        try:
            await asyncio.wait_for(self.heard_caller.wait(), 20)
            heard = True
        except asyncio.TimeoutError:
            heard = False
        self.report["heard_caller"] = heard
        ms = self.report["voiced"] * 20
        await self.send({"event": "voicebridge", "voicebridge": {"type": "transcript", "speaker": "caller", "text": f"(spoke for {ms} ms)"}})
        await self.send({"event": "voicebridge", "voicebridge": {"type": "answer", "question_id": questions[0]["id"],
                                                                 "status": "answered" if heard else "unclear",
                                                                 "answer": f"caller spoke for {ms} ms", "confidence": 0.9}})
        await self.play(GREETING[:8000], "goodbye")
        await self.send({"event": "voicebridge", "voicebridge": {"type": "hangup", "reason": "the test bot is done"}})


async def handler(ws):
    stream = Stream(ws)

    async def read():
        async for text in ws:
            stream.on_message(text)

    reader = asyncio.create_task(read())
    try:
        await stream.converse()
        await asyncio.wait_for(reader, 30)   # until VoiceBridge sends stop and closes
    except Exception as e:  # noqa: BLE001 — reported, not raised: the report is the test's evidence
        stream.problem(f"{type(e).__name__}: {e}")
    finally:
        reader.cancel()
        with open(REPORT, "a") as f:
            f.write(json.dumps(stream.report) + "\n")


async def main():
    async with serve(handler, "127.0.0.1", PORT):
        print("bot listening", flush=True)
        await asyncio.Future()


asyncio.run(main())
