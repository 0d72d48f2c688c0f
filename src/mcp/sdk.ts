// The MCP SDK and zod, bundled apart (dist/mcp-sdk.cjs) and required only when `sow mcp` starts, so no other command
// loads a byte of it (decision 0026). Import them through this module only; types may come from the SDK directly.
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
