/**
 * The surface a caller reaches the service through. A refusal that tells the caller what to
 * call next is addressed to it: an MCP client is told of its tool, a Python program of its
 * class, not of another language's call. HTTP is the default: every other surface names itself
 * in the `x-custodian-client` request header.
 */
export const SURFACES = ['http', 'mcp', 'python', 'go', 'typescript'] as const;
export type Surface = (typeof SURFACES)[number];

/** The header a client names its surface in. */
export const SURFACE_HEADER = 'x-custodian-client';

/** The surface a header value names: one of the known names exactly, else plain HTTP. */
export const surfaceOf = (header: unknown): Surface =>
  typeof header === 'string' && (SURFACES as readonly string[]).includes(header) && header !== 'http' ? (header as Surface) : 'http';
