package labgen.prove.flinkrecord;

import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.util.List;

import org.apache.flink.runtime.rest.RestServerEndpoint;
import org.apache.flink.table.gateway.SqlGateway;

/** Finds the port a gateway started on port 0 is bound to. */
final class GatewayPort {
    private GatewayPort() {}

    static int find(SqlGateway gateway) throws Exception {
        Field f = SqlGateway.class.getDeclaredField("endpoints");
        f.setAccessible(true);
        for (Object e : (List<?>) f.get(gateway)) {
            if (e instanceof RestServerEndpoint) {
                InetSocketAddress a = ((RestServerEndpoint) e).getServerAddress();
                if (a != null) {
                    return a.getPort();
                }
            }
        }
        throw new IllegalStateException("the SQL gateway has no REST endpoint");
    }
}
