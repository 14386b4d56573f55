"""An independent client: pygls 2.1.1's JsonRPCClient talks to the built fetchd unchanged.

It sends initialize, an unknown method, a typed-params error, shutdown and exit, and checks the
answers and the exit code. pygls frames with Content-Length plus a Content-Type header, sends
"params": null, uses UUID string ids, and reads our header with a strict regex.
"""
import asyncio
import sys

from lsprotocol import converters
from pygls.client import JsonRPCClient
from pygls.exceptions import JsonRpcException, JsonRpcMethodNotFound


async def main(binary: str) -> None:
    # The plain converter keeps params/results as dicts (the default makes namedtuples).
    client = JsonRPCClient(converter_factory=converters.get_converter)
    await client.start_io(binary, "--log-level", "warning")

    async def drain_stderr():
        while await client._server.stderr.read(65536):
            pass

    drain = asyncio.create_task(drain_stderr())

    init = await asyncio.wait_for(client.protocol.send_request_async(
        "initialize", {"processId": None, "clientInfo": {"name": "pygls-interop"}, "capabilities": {}}), 10)
    assert init["serverInfo"]["name"] == "fetchd", init
    assert init["protocolVersion"] == 1, init
    assert isinstance(init["capabilities"], dict), init
    client.protocol.notify("initialized", {})

    echo = await asyncio.wait_for(client.protocol.send_request_async(
        "server/echo", {"value": {"my-key": 1, "class": "x", "s": "é😀", "n": 0.1}}), 10)
    assert echo == {"my-key": 1, "class": "x", "s": "é😀", "n": 0.1}, echo

    try:
        await asyncio.wait_for(client.protocol.send_request_async("no/such", {"a": 1}), 10)
        raise AssertionError("unknown method succeeded")
    except JsonRpcMethodNotFound as e:
        assert e.code == -32601, e.code
        assert e.data == {"kind": "methodNotFound", "method": "no/such"}, e.data

    try:
        await asyncio.wait_for(client.protocol.send_request_async("server/echo", {}), 10)
        raise AssertionError("missing param accepted")
    except JsonRpcException as e:
        assert e.code == -32602, e.code
        assert e.data == {"kind": "invalidParams", "param": "value", "expected": "a value", "got": "missing"}, e.data

    result = await asyncio.wait_for(client.protocol.send_request_async("shutdown", None), 10)
    assert result is None, result
    client.protocol.notify("exit")
    await asyncio.wait_for(client.stop(), 10)
    drain.cancel()
    code = client._server.returncode
    assert code == 0, f"exit code {code}"
    print("pygls interop: initialize, echo, unknown method, invalid params, shutdown/exit: ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
