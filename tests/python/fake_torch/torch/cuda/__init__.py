def is_available():
    return False


def is_initialized():
    return False
