package labgen.prove.flink;

import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.factories.FactoryUtil;

import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.exception.DatabaseAlreadyExistException;
import org.apache.fluss.exception.DatabaseNotExistException;
import org.apache.fluss.exception.InvalidTableException;
import org.apache.fluss.exception.TableAlreadyExistException;
import org.apache.fluss.exception.TableNotExistException;
import org.apache.fluss.flink.catalog.FlinkCatalog;
import org.apache.fluss.lake.lakestorage.LakeCatalog;
import org.apache.fluss.lake.lakestorage.LakeStoragePluginSetUp;
import org.apache.fluss.metadata.DataLakeFormat;
import org.apache.fluss.metadata.DatabaseDescriptor;
import org.apache.fluss.metadata.DatabaseInfo;
import org.apache.fluss.metadata.DeleteBehavior;
import org.apache.fluss.metadata.MergeEngineType;
import org.apache.fluss.metadata.SchemaInfo;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.security.acl.FlussPrincipal;
import org.apache.fluss.server.utils.LakeStorageUtils;
import org.apache.fluss.server.utils.TableDescriptorValidation;
import org.apache.fluss.server.zk.data.TableRegistration;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A stand-in for a live Fluss cluster, so that statements that only need
 * Fluss's <em>metadata</em> can still go through Fluss's own code.
 *
 * <p>The catalog registered under the file's catalog name is Fluss's real
 * {@link FlinkCatalog} (built by Fluss's own {@code FlinkCatalogFactory} from the
 * file's {@code CREATE CATALOG} options, so those are validated), with its
 * connection to the coordinator replaced by an in-memory {@link Admin}. That
 * admin does what the coordinator does for DDL, with the coordinator's own code
 * where it is reachable from a jar:
 *
 * <ul>
 *   <li>system defaults: bucket number, replication factor, datalake format, kv
 *       format version (mirrors {@code CoordinatorService#applySystemDefaults});
 *   <li>{@code TableDescriptorValidation.validateTableDescriptor} (fluss-server),
 *       which rejects unknown or invalid {@code table.*} properties;
 *   <li>for a datalake-enabled table, creating the lake table through the lake
 *       format's own {@code LakeCatalog} (fluss-lake-paimon) in a temp warehouse;
 *   <li>{@code TableRegistration.toTableInfo} (fluss-server), which adds the
 *       cluster's {@code table.datalake.<format>.*} options to lake tables.
 * </ul>
 *
 * Reads and writes of these tables are then planned with Fluss's real
 * {@code FlinkTableFactory} (real changelog modes, real option handling).
 * Nothing is sent anywhere: whatever needs the live server (data, offsets,
 * snapshots, the tiering service) is not proven.
 *
 * <p>One fake cluster exists per {@code bootstrap.servers} value for the whole
 * run, so tables created by one file are seen by the next, as on a real server.
 */
final class FlussStandin {

    /** What the fake cluster is configured with (like the lab's server.yaml). */
    static final class Cluster {
        final String bootstrapServers;
        final Configuration conf;
        final Map<String, DatabaseInfo> databases = new LinkedHashMap<>();
        final Map<TablePath, TableInfo> tables = new LinkedHashMap<>();
        /** where each table was created, "file:line", for messages */
        final Map<TablePath, String> createdBy = new HashMap<>();
        private LakeCatalog lakeCatalog;
        private long nextTableId = 1;

        Cluster(String bootstrapServers, Configuration conf) {
            this.bootstrapServers = bootstrapServers;
            this.conf = conf;
            long now = System.currentTimeMillis();
            // the coordinator creates the default database "fluss" on start
            databases.put("fluss", new DatabaseInfo("fluss", DatabaseDescriptor.EMPTY, now, now));
        }

        private LakeCatalog lakeCatalog() {
            if (lakeCatalog == null) {
                DataLakeFormat format = conf.get(ConfigOptions.DATALAKE_FORMAT);
                Map<String, String> lakeProps = LakeStorageUtils.extractLakeProperties(conf);
                lakeCatalog =
                        LakeStoragePluginSetUp.fromDataLakeFormat(format.toString(), null)
                                .createLakeStorage(Configuration.fromMap(lakeProps))
                                .createLakeCatalog();
            }
            return lakeCatalog;
        }

        void createDatabase(String name, DatabaseDescriptor descriptor, boolean ignoreIfExists) {
            if (databases.containsKey(name)) {
                if (ignoreIfExists) {
                    return;
                }
                throw new DatabaseAlreadyExistException("Database " + name + " already exists.");
            }
            long now = System.currentTimeMillis();
            databases.put(name, new DatabaseInfo(name, descriptor, now, now));
        }

        void createTable(TablePath path, TableDescriptor descriptor, boolean ignoreIfExists) {
            path.validate();
            if (!databases.containsKey(path.getDatabaseName())) {
                throw new DatabaseNotExistException(
                        "Database " + path.getDatabaseName() + " does not exist.");
            }
            DataLakeFormat lakeFormat = conf.getOptional(ConfigOptions.DATALAKE_FORMAT).orElse(null);
            TableDescriptor d = applySystemDefaults(descriptor, lakeFormat);
            // the coordinator's own validation of table properties
            TableDescriptorValidation.validateTableDescriptor(
                    d, conf.get(ConfigOptions.MAX_BUCKET_NUM));
            if (tables.containsKey(path)) {
                if (ignoreIfExists) {
                    return;
                }
                throw new TableAlreadyExistException("Table " + path + " already exists.");
            }
            if (isDataLakeEnabled(d)) {
                lakeCatalog().createTable(path, d, new CreateContext(d));
            }
            TableRegistration registration = TableRegistration.newTable(nextTableId++, d);
            TableInfo info =
                    registration.toTableInfo(
                            path,
                            new SchemaInfo(d.getSchema(), 1),
                            LakeStorageUtils.generateDefaultTableLakeOptions(conf));
            tables.put(path, info);
        }

        /**
         * Mirrors CoordinatorService#applySystemDefaults (Fluss 0.9.1), which is
         * private there.
         */
        private TableDescriptor applySystemDefaults(
                TableDescriptor tableDescriptor, DataLakeFormat dataLakeFormat) {
            TableDescriptor newDescriptor = tableDescriptor;
            if (!newDescriptor.getTableDistribution().isPresent()
                    || !newDescriptor.getTableDistribution().get().getBucketCount().isPresent()) {
                newDescriptor =
                        newDescriptor.withBucketCount(conf.get(ConfigOptions.DEFAULT_BUCKET_NUMBER));
            }
            Map<String, String> properties = newDescriptor.getProperties();
            if (!properties.containsKey(ConfigOptions.TABLE_REPLICATION_FACTOR.key())) {
                newDescriptor =
                        newDescriptor.withReplicationFactor(
                                conf.get(ConfigOptions.DEFAULT_REPLICATION_FACTOR));
            }
            if (newDescriptor.getPartitionKeys().size() > 1
                    && "true".equals(properties.get(ConfigOptions.TABLE_AUTO_PARTITION_ENABLED.key()))
                    && !properties.containsKey(ConfigOptions.TABLE_AUTO_PARTITION_NUM_PRECREATE.key())) {
                Map<String, String> p = new HashMap<>(newDescriptor.getProperties());
                p.put(ConfigOptions.TABLE_AUTO_PARTITION_NUM_PRECREATE.key(), "0");
                newDescriptor = newDescriptor.withProperties(p);
            }
            if (dataLakeFormat != null
                    && !properties.containsKey(ConfigOptions.TABLE_DATALAKE_FORMAT.key())) {
                newDescriptor = newDescriptor.withDataLakeFormat(dataLakeFormat);
            }
            if (isDataLakeEnabled(tableDescriptor) && dataLakeFormat == null) {
                throw new InvalidTableException(
                        String.format(
                                "'%s' is enabled for the table, but the Fluss cluster doesn't enable datalake tables.",
                                ConfigOptions.TABLE_DATALAKE_ENABLED.key()));
            }
            Configuration tableConf = Configuration.fromMap(tableDescriptor.getProperties());
            MergeEngineType mergeEngine =
                    tableConf.getOptional(ConfigOptions.TABLE_MERGE_ENGINE).orElse(null);
            if ((mergeEngine == MergeEngineType.FIRST_ROW
                            || mergeEngine == MergeEngineType.VERSIONED
                            || mergeEngine == MergeEngineType.AGGREGATION)
                    && tableDescriptor.hasPrimaryKey()
                    && !tableConf.getOptional(ConfigOptions.TABLE_DELETE_BEHAVIOR).isPresent()) {
                Map<String, String> p = new HashMap<>(newDescriptor.getProperties());
                p.put(ConfigOptions.TABLE_DELETE_BEHAVIOR.key(), DeleteBehavior.IGNORE.name());
                newDescriptor = newDescriptor.withProperties(p);
            }
            if (newDescriptor.hasPrimaryKey()) {
                Map<String, String> p = new HashMap<>(newDescriptor.getProperties());
                if (Configuration.fromMap(p).get(ConfigOptions.TABLE_KV_FORMAT_VERSION) == null) {
                    p.put(
                            ConfigOptions.TABLE_KV_FORMAT_VERSION.key(),
                            String.valueOf(ConfigOptions.CURRENT_KV_FORMAT_VERSION));
                    newDescriptor = newDescriptor.withProperties(p);
                }
            }
            return newDescriptor;
        }

        private static boolean isDataLakeEnabled(TableDescriptor d) {
            return Boolean.parseBoolean(
                    d.getProperties().get(ConfigOptions.TABLE_DATALAKE_ENABLED.key()));
        }
    }

    private static final class CreateContext implements LakeCatalog.Context {
        private final TableDescriptor expected;

        CreateContext(TableDescriptor expected) {
            this.expected = expected;
        }

        @Override
        public boolean isCreatingFlussTable() {
            return true;
        }

        @Override
        public FlussPrincipal getFlussPrincipal() {
            return FlussPrincipal.ANONYMOUS;
        }

        @Override
        public TableDescriptor getCurrentTable() {
            return null;
        }

        @Override
        public TableDescriptor getExpectedTable() {
            return expected;
        }
    }

    private final Map<String, Cluster> clusters = new HashMap<>();
    private final Map<String, String> clusterConf;

    /**
     * @param clusterConf the fake cluster's configuration (server.yaml keys such as
     *     datalake.format, datalake.paimon.warehouse)
     */
    FlussStandin(Map<String, String> clusterConf) {
        this.clusterConf = clusterConf;
    }

    Cluster cluster(String bootstrapServers) {
        return clusters.computeIfAbsent(
                bootstrapServers, b -> new Cluster(b, Configuration.fromMap(clusterConf)));
    }

    /**
     * Builds the catalog for a {@code CREATE CATALOG ... ('type'='fluss', ...)}:
     * Fluss's own factory validates the options and builds its FlinkCatalog;
     * the returned subclass of it talks to the fake cluster instead of a server.
     */
    Catalog createCatalog(
            String name,
            Map<String, String> options,
            org.apache.flink.configuration.ReadableConfig flinkConf,
            ClassLoader classLoader) {
        Catalog real = FactoryUtil.createCatalog(name, options, flinkConf, classLoader);
        if (!(real instanceof FlinkCatalog)) {
            throw new IllegalStateException(
                    "type 'fluss' did not produce Fluss's FlinkCatalog but " + real.getClass());
        }
        FlinkCatalog fc = (FlinkCatalog) real;
        String bootstrap = field(fc, "bootstrapServers");
        return new StandinCatalog(
                name,
                fc.getDefaultDatabase(),
                bootstrap,
                classLoader,
                field(fc, "securityConfigs"),
                field(fc, "lakeCatalogPropertiesSupplier"),
                adminFor(cluster(bootstrap)));
    }

    @SuppressWarnings("unchecked")
    private static <T> T field(FlinkCatalog catalog, String name) {
        try {
            Field f = FlinkCatalog.class.getDeclaredField(name);
            f.setAccessible(true);
            return (T) f.get(catalog);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    "Fluss's FlinkCatalog has no field '" + name
                            + "' (stand-in written against Fluss 0.9.1)", e);
        }
    }

    /** Fluss's FlinkCatalog with the connection replaced by the fake cluster's admin. */
    static final class StandinCatalog extends FlinkCatalog {
        StandinCatalog(
                String name,
                String defaultDatabase,
                String bootstrapServers,
                ClassLoader classLoader,
                Map<String, String> securityConfigs,
                Supplier<Map<String, String>> lakeCatalogPropertiesSupplier,
                Admin admin) {
            super(
                    name,
                    defaultDatabase,
                    bootstrapServers,
                    classLoader,
                    securityConfigs,
                    lakeCatalogPropertiesSupplier);
            this.admin = admin;
        }

        @Override
        public void open() throws CatalogException {
            // what FlinkCatalog#open checks after connecting
            if (!databaseExists(defaultDatabase)) {
                throw new CatalogException(
                        String.format(
                                "The configured default-database '%s' does not exist in the Fluss cluster.",
                                defaultDatabase));
            }
        }

        @Override
        public void close() throws CatalogException {}
    }

    /** An in-memory Admin: the DDL and metadata calls FlinkCatalog makes; the rest needs a server. */
    private static Admin adminFor(Cluster c) {
        InvocationHandler h =
                (proxy, method, args) -> {
                    String m = method.getName();
                    try {
                        switch (m) {
                            case "createDatabase":
                                c.createDatabase(
                                        (String) args[0], (DatabaseDescriptor) args[1], (Boolean) args[2]);
                                return CompletableFuture.completedFuture(null);
                            case "databaseExists":
                                return CompletableFuture.completedFuture(
                                        c.databases.containsKey((String) args[0]));
                            case "getDatabaseInfo":
                                {
                                    DatabaseInfo db = c.databases.get((String) args[0]);
                                    if (db == null) {
                                        throw new DatabaseNotExistException(
                                                "Database " + args[0] + " does not exist.");
                                    }
                                    return CompletableFuture.completedFuture(db);
                                }
                            case "listDatabases":
                                return CompletableFuture.completedFuture(
                                        new ArrayList<>(c.databases.keySet()));
                            case "createTable":
                                c.createTable(
                                        (TablePath) args[0], (TableDescriptor) args[1], (Boolean) args[2]);
                                return CompletableFuture.completedFuture(null);
                            case "getTableInfo":
                                {
                                    TableInfo t = c.tables.get((TablePath) args[0]);
                                    if (t == null) {
                                        throw new TableNotExistException(
                                                "Table '" + args[0] + "' does not exist."
                                                        + " (Fluss stand-in: tables persist across the files of"
                                                        + " one run, as on a server; pass the file that creates it first.)");
                                    }
                                    return CompletableFuture.completedFuture(t);
                                }
                            case "tableExists":
                                return CompletableFuture.completedFuture(
                                        c.tables.containsKey((TablePath) args[0]));
                            case "listTables":
                                {
                                    List<String> names = new ArrayList<>();
                                    for (TablePath p : c.tables.keySet()) {
                                        if (p.getDatabaseName().equals(args[0])) {
                                            names.add(p.getTableName());
                                        }
                                    }
                                    return CompletableFuture.completedFuture(names);
                                }
                            case "close":
                                return null;
                            case "toString":
                                return "FlussStandinAdmin(" + c.bootstrapServers + ")";
                            case "hashCode":
                                return System.identityHashCode(proxy);
                            case "equals":
                                return proxy == args[0];
                            default:
                                throw new UnsupportedOperationException(
                                        "Admin." + m + " needs a live Fluss server ("
                                                + c.bootstrapServers
                                                + "); the prove tool's Fluss stand-in only holds metadata");
                        }
                    } catch (RuntimeException e) {
                        if (method.getReturnType() == CompletableFuture.class) {
                            CompletableFuture<Object> f = new CompletableFuture<>();
                            f.completeExceptionally(e);
                            return f;
                        }
                        throw e;
                    }
                };
        return (Admin)
                Proxy.newProxyInstance(
                        FlussStandin.class.getClassLoader(), new Class<?>[] {Admin.class}, h);
    }
}
