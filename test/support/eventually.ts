/**
 * Polls `probe` until it returns something other than undefined, or fails at the deadline. Tests wait on
 * asynchronous controllers and clusters with this instead of fixed sleeps.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  { timeoutMs = 10_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
