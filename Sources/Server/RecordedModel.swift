import JSON
import JSONRPC
import Store

extension Server {
    /// The model a store file records, in its wire form (`store/open`'s `model`), so the
    /// command line can open an existing store without `--model`. Errors as `store/open`'s.
    public static func recordedModel(path: String) -> Result<JSON, RPCError> {
        do {
            return .success(WireModel.encode(try SQLiteStore.recordedModel(path: path)))
        } catch {
            return .failure(ErrorTable.rpcError(error))
        }
    }
}
