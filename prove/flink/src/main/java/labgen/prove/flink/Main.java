package labgen.prove.flink;
public class Main { public static void main(String[] a) {} }
