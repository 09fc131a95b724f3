"""An Orca speech "server" that appends each utterance to $ORCA_SPEECH_CAPTURE and flushes it.

Works with Orca 43 (camelCase factory API) and Orca 48 (snake_case: get_speech_server, get_info,
speak_character, speak_key_event, say_all...); speak() is the same in both.

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

    # Orca 45 and later call the same things by snake_case names.
    get_factory_name = getFactoryName
    get_speech_servers = getSpeechServers
    get_speech_server = getSpeechServer
    shutdown_active_servers = shutdownActiveServers
    def get_info(self): return self.getInfo()
    def get_voice_families(self): return []
    def speak_character(self, character, acss=None): _write("CHAR", character)
    def speak_key_event(self, event, acss=None): _write("KEY", str(getattr(event, "keyval_name", event)))
    def say_all(self, utterance_iterator, progress_callback):
        for context, acss in utterance_iterator:
            _write("SAYALL", context.utterance)

    def stop(self): pass
    def shutdown(self): pass
    def reset(self, text=None, acss=None): pass
