package labgen.prove.flinkrecord;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.Collections;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.table.gateway.SqlGateway;
import org.apache.flink.table.gateway.service.context.DefaultContext;
import org.apache.flink.table.gateway.service.session.SessionManager;

/**
 * Starts a Flink MiniCluster with its REST endpoint and a SQL gateway that
 * submits to it, prints one line
 *
 * <pre>READY flink=1.20.1 rest=http://127.0.0.1:PORT gateway=http://127.0.0.1:PORT</pre>
 *
 * and runs until its standard input is closed. The gateway's sessions get
 * the lab's job configuration: checkpoints every 2 s, a fixed-delay restart
 * strategy (2 attempts, 1 s apart), so that recorded jobs checkpoint, and a
 * failing job shows restarts and then FAILED.
 */
public final class Main {
    public static void main(String[] args) throws Exception {
        int restPort = 0;
        int gatewayPort = 0;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rest-port":
                    restPort = Integer.parseInt(args[i + 1]);
                    break;
                case "--gateway-port":
                    gatewayPort = Integer.parseInt(args[i + 1]);
                    break;
                default:
                    System.err.println("usage: Main [--rest-port N] [--gateway-port N]");
                    System.exit(2);
            }
        }

        Configuration cluster = new Configuration();
        cluster.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        cluster.set(RestOptions.ADDRESS, "127.0.0.1");
        cluster.set(RestOptions.PORT, restPort);
        cluster.setString("rest.bind-port", String.valueOf(restPort));
        cluster.set(TaskManagerOptions.NUM_TASK_SLOTS, 4);
        MiniCluster mini = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(cluster)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(4)
                .build());
        mini.start();
        URI rest = mini.getRestAddress().get();

        Configuration gw = new Configuration();
        gw.setString("sql-gateway.endpoint.type", "rest");
        gw.setString("sql-gateway.endpoint.rest.address", "127.0.0.1");
        gw.setString("sql-gateway.endpoint.rest.bind-address", "127.0.0.1");
        gw.setString("sql-gateway.endpoint.rest.port", String.valueOf(gatewayPort));
        gw.setString("sql-gateway.endpoint.rest.bind-port", String.valueOf(gatewayPort));
        // sessions submit to the MiniCluster through its REST endpoint
        gw.setString("execution.target", "remote");
        gw.setString("rest.address", rest.getHost());
        gw.setString("rest.port", String.valueOf(rest.getPort()));
        gw.setString("execution.checkpointing.interval", "2s");
        gw.setString("restart-strategy.type", "fixed-delay");
        gw.setString("restart-strategy.fixed-delay.attempts", "2");
        gw.setString("restart-strategy.fixed-delay.delay", "1s");
        gw.setString("parallelism.default", "1");

        SessionManager sessions = SessionManager.create(new DefaultContext(gw, Collections.emptyList()));
        SqlGateway gateway = new SqlGateway(gw, sessions);
        gateway.start();

        int port = gatewayPort;
        if (port == 0) {
            port = GatewayPort.find(gateway);
        }
        System.out.printf("READY flink=%s rest=http://%s:%d gateway=http://127.0.0.1:%d%n",
                EnvironmentInformation.getVersion(), rest.getHost(), rest.getPort(), port);
        System.out.flush();

        InputStream in = System.in;
        byte[] buf = new byte[256];
        try {
            while (in.read(buf) >= 0) {
                // run until stdin closes
            }
        } catch (IOException ignored) {
            // closed
        }
        gateway.stop();
        mini.close();
        System.exit(0);
    }
}
