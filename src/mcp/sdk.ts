/**
 * The parts of the MCP SDK and zod that `sow mcp` uses, as one module. The build bundles it on its
 * own (dist/mcp-sdk.cjs, about 0.7 MB) and core.cjs requires that file only when `sow mcp` starts,
 * so no other command reads, compiles or caches a byte of it (docs/decisions/0026-mcp-server.md).
 * Import the SDK and zod through this module only; types may come from the SDK directly.
 */
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export {
  CallToolRequestSchema,
  ClientNotificationSchema,
  ClientRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
export { z } from 'zod';
