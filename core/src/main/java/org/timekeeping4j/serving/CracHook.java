package org.timekeeping4j.serving;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Re-discovery at once after a CRaC restore: an {@code org.crac.Resource} registered with {@code org.crac}'s global
 * context (the {@code org.crac:crac} API jar, which works on any JDK and does nothing without CRaC). Bound by
 * reflection, so that the library neither compiles against nor requires it: where the jar is on the class or
 * module path the hook registers, elsewhere nothing happens, and a plain CRIU restore is still noticed by the first
 * read that finds the kernel data moved.
 */
final class CracHook implements InvocationHandler {

    /** The registered resource (a proxy), held strongly: a CRaC context may keep its resources weakly. */
    private static volatile Object resource;

    private CracHook() {}

    /**
     * Registers the hook where org.crac is present (once: Handover calls it after the first discovery that found
     * exact mode).
     *
     * @return the registered resource, or null where org.crac is absent or refuses
     */
    static Object register() {
        try {
            ClassLoader loader = CracHook.class.getClassLoader();
            Class<?> resourceType = Class.forName("org.crac.Resource", false, loader);
            Object context = Class.forName("org.crac.Core", true, loader).getMethod("getGlobalContext").invoke(null);
            Object r = Proxy.newProxyInstance(loader, new Class<?>[] {resourceType}, new CracHook());
            // Through the public type's method: the context's own class need not be public.
            Class.forName("org.crac.Context", false, loader).getMethod("register", resourceType).invoke(context, r);
            resource = r;
            return r;
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            return null; // no org.crac here (the usual case), or one this library cannot use
        }
    }

    /** {@return the registered resource, or null} */
    static Object resource() {
        return resource;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) {
        return switch (method.getName()) {
            case "afterRestore" -> {
                FastPath.rediscover("restored from a CRaC checkpoint");
                yield null;
            }
            case "beforeCheckpoint" -> null; // nothing to release: no descriptor is held across reads
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            case "toString" -> "timekeeping4j's CRaC resource";
            default -> throw new UnsupportedOperationException(method.getName());
        };
    }
}
