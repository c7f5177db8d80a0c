int fake_nvml_placeholder_symbol(void) { return 0; }
