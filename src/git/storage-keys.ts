/** R2 keys of a repository's packs: immutable, named by the pack's own SHA-1. */

export function packKey(projectId: string, packName: string): string {
  return `projects/${projectId}/git/pack-${packName}.pack`;
}

export function indexKey(projectId: string, packName: string): string {
  return `projects/${projectId}/git/pack-${packName}.idx`;
}
