package org.timekeeping4j.serving;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * The hand-over's publication of the serving mode: a discovery constructs a backend and publishes it through
 * {@code Handover.publish} (the one store every discovery makes), while a read loads {@code FastPath.backend} as
 * every FastPath read does and uses what it loaded. Every backend published here is a fresh
 * {@code KernelBackend} with ticksAreCycles = true, so a reader that loads one and finds its state false has seen
 * the reference before the object's initialisation.
 *
 * <p>{@code FastPath.backend} is static, shared by every state of the run: a reader may load the backend of an
 * earlier iteration (as fully initialised as the latest); it loads null only before the first publication of the
 * fork. The read path does not call the backend here: its reads go to native code, and a null backend starts the
 * discovery thread; the field load is the read path's, the check of the state stands in for the call. Fails
 * when the backend is published before its field is stored; on x86 a plain backend and a non-final field did
 * not fail it.
 */
@JCStressTest
@Outcome(id = "false, false", expect = ACCEPTABLE, desc = "no backend published yet in this fork")
@Outcome(id = "true, true", expect = ACCEPTABLE, desc = "a backend, its state initialised")
@Outcome(id = "true, false", expect = FORBIDDEN, desc = "a backend whose state is not yet initialised")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class BackendPublicationTest {

    @Actor
    public void discovery() {
        Handover.publish(KernelBackend.create(true)); // as Handover.rediscover publishes the kernel's clocks
    }

    @Actor
    public void reader(ZZ_Result r) {
        Backend b = FastPath.backend; // the volatile load every FastPath read begins with; pairs with publish
        r.r1 = b != null;
        r.r2 = b instanceof KernelBackend k && k.ticksAreCycles;
    }
}
