"""An Orca speech "server" that appends each utterance to $ORCA_SPEECH_CAPTURE and flushes it.

Found because /usr/bin/orca puts the prefs dir (-u) on sys.path and speech._initSpeechServer()
falls back to importlib.import_module(<speechServerFactory>). No audio, no speech-dispatcher.
"""
import os, time
from orca import speechserver

_OUT = os.environ.get("ORCA_SPEECH_CAPTURE", "orca-speech.txt")


def _write(kind, text):
    with open(_OUT, "a", encoding="utf-8") as f:
        f.write("%.3f\t%s\t%s\n" % (time.time(), kind, text))
        f.flush()


class SpeechServer(speechserver.SpeechServer):
    _active = None

    @staticmethod
    def getFactoryName(): return "CI capture"

    @staticmethod
    def getSpeechServers(): return [SpeechServer.getSpeechServer()]

    @staticmethod
    def getSpeechServer(info=None):
        if SpeechServer._active is None:
            SpeechServer._active = SpeechServer()
        return SpeechServer._active

    @staticmethod
    def shutdownActiveServers(): SpeechServer._active = None

    def getInfo(self): return ["CI capture", "capture"]
    def getVoiceFamilies(self): return []

    def speak(self, text=None, acss=None, interrupt=True):
        if text:
            _write("SPEAK", text)

    def speakCharacter(self, character, acss=None): _write("CHAR", character)
    def speakKeyEvent(self, event, acss=None): _write("KEY", event.getKeyName())

    def sayAll(self, utteranceIterator, progressCallback):
        for context, acss in utteranceIterator:
            _write("SAYALL", context.utterance)

    def stop(self): pass
    def shutdown(self): pass
    def reset(self, text=None, acss=None): pass
