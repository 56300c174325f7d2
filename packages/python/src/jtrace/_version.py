SDK_NAME = "jtrace-python"
SDK_VERSION = "0.1.0"
