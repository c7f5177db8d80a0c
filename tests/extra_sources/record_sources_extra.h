/* The source table line of the test-only eighth source (record_source_fake.c). */
GW_RECORD_SOURCE(fake)
