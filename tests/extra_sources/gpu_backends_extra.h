/* The backend list line of the test-only third GPU backend (gpu_backend_fake.c). */
GW_GPU_BACKEND(fake)
