/** Re-reads `read()` every 10 ms until `done` accepts its value (which it returns); throws after about 3 s. */
export async function until<T>(read: () => T | Promise<T>, done: (value: NoInfer<T>) => boolean): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('never reached');
}
