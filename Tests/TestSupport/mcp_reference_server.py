"""The reference MCP server the tool tests call: Python's official SDK (`mcp`, installed by
`make deps` into .deps/mcp), Streamable HTTP on 127.0.0.1:<port>/mcp. Usage: mcp_reference_server.py PORT"""
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("clinic")


@server.tool()
def free_slots(day: str) -> dict:
    """The free appointment times on a day (YYYY-MM-DD)."""
    return {"day": day, "free": ["10:30", "14:00"]}


@server.tool()
def cancel_booking(booking: str) -> str:
    """Cancel a booking by its reference."""
    raise ToolError(f"booking {booking} does not exist")


server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
