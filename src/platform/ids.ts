const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a UUID in its canonical text form (checked before it reaches a uuid column). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
