import JSON
import JSONRPC
import Store

extension Server {
    /// The model a store file (or a PostgreSQL dataset, for a `postgresql://` URL) records,
    /// in its wire form (`store/open`'s `model`), so the command line can open an existing
    /// store without `--model`. Errors as `store/open`'s.
    public static func recordedModel(path: String) -> Result<JSON, RPCError> {
        do {
            if StoreLocation.isServerURL(path) {
                return .success(WireModel.encode(try PGStore.recordedModel(url: path)))
            }
            return .success(WireModel.encode(try SQLiteStore.recordedModel(path: path)))
        } catch {
            return .failure(ErrorTable.rpcError(error))
        }
    }

    /// The model a PostgreSQL dataset records, in the given schema (the URL's, else "fetchd").
    static func recordedModel(url: String, schema: String?) -> Result<JSON, RPCError> {
        do {
            return .success(WireModel.encode(try PGStore.recordedModel(url: url, schema: schema)))
        } catch {
            return .failure(ErrorTable.rpcError(error))
        }
    }
}
